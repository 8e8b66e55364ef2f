/* teplug/status.h — how errors cross the ABI.
 *
 * Every fallible ABI function returns `TeplugError*`: NULL means success; a
 * non-NULL error is OWNED BY THE CALLER, who reads `code` and `message` and then
 * calls `error->destroy(error)` exactly once (never free() it: it may come
 * from another C runtime). The error was allocated by the side that created
 * it and `destroy` frees it with that side's allocator, so the two sides may
 * use different C runtimes. Returning an error you received unchanged hands
 * its ownership on.
 *
 * The host never passes a plugin's error object on: it reads it, destroys it
 * and gives its own caller a new error made with teplug_error_create, with
 * the plugin's code and the message "<provider/implementation> returned
 * <code> from <method>: <message>" ("teplug_plugin_entry returned <code>:
 * <message>" at the entry). A malformed error object is survived, not
 * trusted:
 *  - `destroy` NULL: the object is read and never freed (the host cannot know
 *    the plugin's allocator): it is abandoned (leaked), and the message says
 *    "[the plugin's error object had no destroy function and was abandoned]";
 *  - `message` NULL: "(no message: the error's message was NULL)";
 *  - `code` not a TeplugCode (0 included): TEPLUG_INTERNAL, the message naming
 *    the number ("returned unknown code 77 (treated as internal)");
 *  - `message` longer than 4096 bytes or unterminated: read with strnlen up to
 *    4096 bytes, cut there and marked "...";
 *  - control characters or bytes that are not UTF-8: escaped as \xNN, on one
 *    line (interfaces/README.md, "Text you hand the host").
 *
 * No C++ exception may cross the ABI. The host catches one escaping any call
 * into a plugin (the entry, every method returning a TeplugError*,
 * `supports`, `query_interface`, `add_ref` and `release`) and makes a
 * TEPLUG_INTERNAL error "C++ exception escaped <provider/implementation>
 * <method>: <what()>" ("(not a std::exception)" for other types), logged
 * once per op signature and implementation. What it costs, by call:
 *  - an op method (gemm, forward, backward, quantize, dequantize): handled
 *    like TEPLUG_UNSUPPORTED (fallback; in strict mode or with no candidate
 *    left the caller gets the error, why there was no fallback and the
 *    decision record), and the implementation is then SKIPPED FOR THAT OP
 *    SIGNATURE on every later call until a plugin load or config reload
 *    publishes a new registry (later calls fall back at once, or get
 *    TEPLUG_INTERNAL saying it is skipped and why); only the first 64 ranked
 *    candidates of a signature can be marked skipped;
 *  - the entry: the plugin is refused with the exception's text;
 *  - query_interface or add_ref while registering: the registration is
 *    refused ("implementation "<name>" (<interface>): C++ exception escaped
 *    query_interface: <what()>");
 *  - release (also when the host drops its reference): one "teplug ERROR:"
 *    line on stderr; the reference counts as released;
 *  - supports: a refusal at the supports stage whose reason is the text;
 *  - workspace_size of a dispatching object: that candidate's workspace is
 *    not counted (warning); in strict mode, or when no candidate answered,
 *    the caller gets the error;
 *  - a collective call: the caller gets the error (a communicator is bound
 *    to one implementation and never falls back).
 *
 * Field reference: every field and code here appeared in ABI v1.0. */
#ifndef TEPLUG_STATUS_H_
#define TEPLUG_STATUS_H_

#include <stdlib.h>
#include <string.h>

#include "teplug/abi_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TeplugCode {
  /* Never in an error object (success is NULL). */
  TEPLUG_OK = 0,
  /* The caller passed something wrong: bad shape, NULL where required, bad
   * enum value, inconsistent sizes, malformed strides. A malformed call is
   * INVALID_ARGUMENT for every provider. No fallback. */
  TEPLUG_INVALID_ARGUMENT = 1,
  /* This implementation cannot serve this op (a capability it lacks), and
   * another provider could legitimately serve the same call. The core falls
   * back to the next ranked candidate in non-strict mode and says so. */
  TEPLUG_UNSUPPORTED = 2,
  /* It could serve it, but not now: device busy or lost, a run-time library
   * missing. Also falls back in non-strict mode. */
  TEPLUG_UNAVAILABLE = 3,
  /* Host or device allocation failed. No fallback. */
  TEPLUG_OUT_OF_MEMORY = 4,
  /* The two sides disagree on the ABI: version ranges, a struct_size too
   * small. No fallback. */
  TEPLUG_ABI_MISMATCH = 5,
  /* A bug or unexpected failure inside the implementation (a vendor library
   * returned an unexpected status). No fallback. */
  TEPLUG_INTERNAL = 6,
  /* A named thing (provider, rule, key) does not exist. No fallback. */
  TEPLUG_NOT_FOUND = 7,
  /* A timeout, or a peer that did not answer (collectives, rendezvous). No
   * fallback. */
  TEPLUG_DEADLINE_EXCEEDED = 8,
  /* The state does not allow the call (a call inside an unfinished collective
   * group, nested group_start, a registration after the entry returned). No
   * fallback. */
  TEPLUG_FAILED_PRECONDITION = 9
} TeplugCode;

typedef struct TeplugError TeplugError;
/* An error (32 bytes in v1.0), allocated and freed by its creator. */
struct TeplugError {
  /* v1.0. The creator's sizeof(TeplugError). */
  size_t struct_size;
  /* v1.0. A TeplugCode; a reader treats unknown values (from a newer peer) as
   * TEPLUG_INTERNAL. */
  int32_t code;
  /* v1.0. Zero; keeps the layout free of padding. */
  int32_t reserved0;
  /* v1.0. NUL-terminated UTF-8, one line, naming what was wrong and where,
   * with the values ("k=7 not a multiple of 8"); owned by the error, valid
   * until destroy. The host reads at most 4096 bytes of it. */
  const char* message;
  /* v1.0. Frees the error with the creator's allocator; the receiver calls it
   * exactly once. */
  void (*destroy)(TeplugError* self);
};
TEPLUG_DECLARE_LAST_FIELD(TeplugError, destroy);

/* Canonical lower-case name of a code ("invalid_argument"). Never NULL. */
static inline const char* teplug_code_name(int32_t code) {
  switch (code) {
    case TEPLUG_OK: return "ok";
    case TEPLUG_INVALID_ARGUMENT: return "invalid_argument";
    case TEPLUG_UNSUPPORTED: return "unsupported";
    case TEPLUG_UNAVAILABLE: return "unavailable";
    case TEPLUG_OUT_OF_MEMORY: return "out_of_memory";
    case TEPLUG_ABI_MISMATCH: return "abi_mismatch";
    case TEPLUG_INTERNAL: return "internal";
    case TEPLUG_NOT_FOUND: return "not_found";
    case TEPLUG_DEADLINE_EXCEEDED: return "deadline_exceeded";
    case TEPLUG_FAILED_PRECONDITION: return "failed_precondition";
    default: return "unknown";
  }
}

/* Error allocation helpers, compiled into whoever includes this header, so the
 * error is freed by the same runtime that allocated it. */
static inline void teplug_error_destroy_malloced_(TeplugError* self) { free(self); }

/* A statically allocated error returned when allocating an error fails. Its
 * destroy does nothing. */
static inline void teplug_error_destroy_static_(TeplugError* self) { (void)self; }

/* Creates an error carrying a copy of `message` (NULL is treated as ""). The
 * error and its message are one allocation. Never returns NULL. */
static inline TeplugError* teplug_error_create(TeplugCode code, const char* message) {
  static TeplugError out_of_memory = {sizeof(TeplugError), TEPLUG_OUT_OF_MEMORY, 0,
                                      "out of memory while reporting an error",
                                      teplug_error_destroy_static_};
  size_t len = message ? strlen(message) : 0;
  TeplugError* e = (TeplugError*)malloc(sizeof(TeplugError) + len + 1);
  char* text;
  if (e == NULL) return &out_of_memory;
  text = (char*)(e + 1);
  if (len) memcpy(text, message, len);
  text[len] = '\0';
  e->struct_size = sizeof(TeplugError);
  e->code = (int32_t)code;
  e->reserved0 = 0;
  e->message = text;
  e->destroy = teplug_error_destroy_malloced_;
  return e;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_STATUS_H_ */
