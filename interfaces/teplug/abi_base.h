/* teplug/abi_base.h — the object model every teplug interface shares.
 *
 * Versioning rules (see interfaces/README.md, "Versioning"):
 *  - An interface id (IID) names one interface at one MAJOR version. A new major
 *    version is a new IID; one object may expose v1 and v2 side by side.
 *  - Minor evolution is append-only: every struct and function table that crosses
 *    the boundary begins with `struct_size`, set by whoever allocated it to
 *    sizeof() as *they* compiled it. A reader checks struct_size before touching
 *    a field (TEPLUG_HAS_FIELD) and treats missing trailing fields as their
 *    documented default (zero / NULL).
 *  - Every v1 struct is laid out without tail padding on LP64 targets, so
 *    TEPLUG_DECLARE_LAST_FIELD can check at compile time that the field named as
 *    last really is last: appending a field without updating the check fails the
 *    build.
 *
 * Pure C99; no C++ types cross this boundary. */
#ifndef TEPLUG_ABI_BASE_H_
#define TEPLUG_ABI_BASE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI version of the plugin protocol and the base structs: (major << 16) | minor. */
#define TEPLUG_ABI_VERSION(major, minor) ((uint32_t)(((uint32_t)(major) << 16) | (uint32_t)(minor)))
#define TEPLUG_ABI_MAJOR(v) ((uint32_t)(v) >> 16)
#define TEPLUG_ABI_MINOR(v) ((uint32_t)(v)&0xFFFFu)
/* The version these headers describe. What each minor version added (every
 * field and method comment names the version it appeared in):
 *  - 1.0: everything not listed below.
 *  - 1.1: TeplugPluginInfo.device_kind_name_count, vendor_name_count,
 *         device_kind_names and vendor_names; TeplugHostApi.get_option and
 *         options_ctx (plugin.h).
 *  - 1.2: TeplugCommCreateArgs.num_hosts, TeplugCollectiveCaps.features and
 *         TEPLUG_COLLECTIVE_CAP_ONE_HOST (collective.h).
 *  - 1.3: TeplugQuantizeArgs.mx_scale_rule and reserved1, TeplugMxScaleRule
 *         and TEPLUG_QUANT_CAP_MX_TE_SCALE (quantizer.h);
 *         TeplugNormFwdArgs.mx_scale_rule and reserved1 and
 *         TEPLUG_NORM_CAP_MX_TE_SCALE (norm.h). */
#define TEPLUG_ABI_VERSION_CURRENT TEPLUG_ABI_VERSION(1, 3)
/* The first version of the current major. A plugin that writes and reads the
 * fields of later minors only when struct_size holds them (as the SDK does)
 * declares [TEPLUG_ABI_VERSION_MAJOR_FIRST, TEPLUG_ABI_VERSION_CURRENT] and
 * loads on every host of this major; a host that reads the shorter structs
 * of older minors offers the same range. */
#define TEPLUG_ABI_VERSION_MAJOR_FIRST TEPLUG_ABI_VERSION(1, 0)

/* Size of `type` up to and including `field`: what a reader requires struct_size
 * to be before it reads `field`. */
#define TEPLUG_STRUCT_SIZE(type, field) \
  (offsetof(type, field) + sizeof(((type*)0)->field))

/* True when the struct behind `ptr` (which starts with struct_size) is large
 * enough to hold `field`. */
#define TEPLUG_HAS_FIELD(ptr, type, field) \
  ((ptr) != NULL && (ptr)->struct_size >= TEPLUG_STRUCT_SIZE(type, field))

/* The value of `field` of the struct `s` (an lvalue, not a pointer), or
 * `fallback` (the field's documented 0 / NULL meaning) when its writer's
 * struct_size ends before the field: how a reader takes a field of a later
 * minor from a struct an older writer built. */
#define TEPLUG_FIELD_OR(s, type, field, fallback) \
  ((s).struct_size >= TEPLUG_STRUCT_SIZE(type, field) ? (s).field : (fallback))

#ifdef __cplusplus
/* Compile-time check that `field` is the last field of `type`: v1 structs have no
 * tail padding, so any field after `field` makes sizeof(type) larger. */
#define TEPLUG_DECLARE_LAST_FIELD(type, field)                          \
  static_assert(sizeof(type) == TEPLUG_STRUCT_SIZE(type, field), \
                #type ": " #field " must be the last field")
#else
/* C99 has no _Static_assert: a negative array size fails the build. The
 * typedef is named after the struct so each check is unique. */
#define TEPLUG_DECLARE_LAST_FIELD(type, field) \
  typedef char teplug_last_field_check_##type[(sizeof(type) == TEPLUG_STRUCT_SIZE(type, field)) ? 1 : -1]
#endif

/* True when the function table of interface object `obj` (whose table type is
 * `vtbl_type`, e.g. TeplugGemmV1Vtbl) is large enough to hold `method`: the
 * table's struct_size sits in its `base`, so TEPLUG_HAS_FIELD does not apply. */
#define TEPLUG_HAS_METHOD(obj, vtbl_type, method) \
  ((obj) != NULL && (obj)->vtbl != NULL &&       \
   (obj)->vtbl->base.struct_size >= TEPLUG_STRUCT_SIZE(vtbl_type, method))

/* Booleans across the ABI are 32-bit integers: 0 false, anything else true. */
typedef int32_t TeplugBool;

/* An interface id: 128 bits, compared as a whole. Each interface header defines
 * its IIDs as constants (TEPLUG_IID_*); a new major version gets a new IID. */
typedef struct TeplugIID {
  uint64_t hi; /* v1.0 */
  uint64_t lo; /* v1.0 */
} TeplugIID;

static inline int teplug_iid_equal(const TeplugIID* a, const TeplugIID* b) {
  return a->hi == b->hi && a->lo == b->lo;
}

/* The base of every interface object, COM style: the object's first member is a
 * pointer to its function table, whose first member is this base table. */
typedef struct TeplugObject TeplugObject;

typedef struct TeplugObjectVtbl {
  /* v1.0. sizeof() the *whole* table (the interface's, not just this base) as
   * the implementer compiled it; see TEPLUG_HAS_METHOD. */
  size_t struct_size;
  /* v1.0. Returns an object exposing `iid` with one reference added for the
   * caller, or NULL when this object does not expose it (never an error: this
   * method has no error channel; NULL also for a NULL `iid`). Asking for the
   * IID the object was obtained as returns the object itself (add_ref'd);
   * every object answers TEPLUG_IID_OBJECT_INIT; an object registered for
   * IID X must return the SAME POINTER for X. For another major version it
   * may return a different object. Thread-safe. */
  TeplugObject* (*query_interface)(TeplugObject* self, const TeplugIID* iid);
  /* v1.0. Adds one reference; returns the new count (for diagnostics only:
   * never make decisions on it). Thread-safe. */
  uint32_t (*add_ref)(TeplugObject* self);
  /* v1.0. Drops one reference; at zero the object frees itself (on whichever
   * thread released last). Returns the new count. Thread-safe. A statically
   * allocated object may keep a count that never frees anything, but must
   * still count correctly. */
  uint32_t (*release)(TeplugObject* self);
} TeplugObjectVtbl;
TEPLUG_DECLARE_LAST_FIELD(TeplugObjectVtbl, release);

struct TeplugObject {
  const TeplugObjectVtbl* vtbl;
};

/* IObject (v1.0), the base interface: every object answers it. */
#define TEPLUG_IID_OBJECT_INIT {0x7465706c75670000ull, 0x0000000000000001ull}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_ABI_BASE_H_ */
