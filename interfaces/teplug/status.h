/* teplug/status.h — how errors cross the ABI.
 *
 * Every fallible ABI function returns `TeplugError*`: NULL means success; a
 * non-NULL error is OWNED BY THE CALLER, who reads `code` and `message` and then
 * calls `error->destroy(error)` exactly once. The error was allocated by the
 * side that created it and `destroy` frees it with that side's allocator, so
 * the two sides may use different C runtimes. `message` is a NUL-terminated
 * UTF-8 string owned by the error, valid until destroy.
 *
 * The host never passes a plugin's error object on: it reads it (the message
 * with a bound, escaped), destroys it and gives its own caller a new error
 * made with teplug_error_create. A plugin error whose `destroy` is NULL is
 * abandoned (never freed), a NULL `message` is replaced by a placeholder and
 * an unknown `code` is read as TEPLUG_INTERNAL; interfaces/README.md 2.2
 * says what the caller then sees.
 *
 * No C++ exception may cross the ABI. The host catches one escaping any call
 * into a plugin (every method returning a TeplugError*, `supports`,
 * `query_interface`, `add_ref` and `release`), turns it into TEPLUG_INTERNAL
 * "C++ exception escaped <implementation> <method>: <what>" and treats the
 * implementation as failed for that op signature: fallback rules apply, and
 * later calls of the signature skip it (interfaces/README.md 2.2). */
#ifndef TEPLUG_STATUS_H_
#define TEPLUG_STATUS_H_

#include <stdlib.h>
#include <string.h>

#include "teplug/abi_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum TeplugCode {
  TEPLUG_OK = 0,
  /* The caller passed something wrong (bad shape, NULL pointer, bad enum). */
  TEPLUG_INVALID_ARGUMENT = 1,
  /* This implementation cannot serve this op (a capability it lacks). The core
   * may fall back to the next candidate (non-strict mode) and says so. */
  TEPLUG_UNSUPPORTED = 2,
  /* The implementation could serve it but not now (device busy or lost, library
   * missing at run time). Also eligible for fallback. */
  TEPLUG_UNAVAILABLE = 3,
  TEPLUG_OUT_OF_MEMORY = 4,
  /* The two sides disagree on the ABI (version ranges, struct sizes). */
  TEPLUG_ABI_MISMATCH = 5,
  /* A bug or an unexpected failure inside the implementation. */
  TEPLUG_INTERNAL = 6,
  /* A named thing (provider, rule, key) does not exist. */
  TEPLUG_NOT_FOUND = 7,
  /* A timeout or a peer that did not answer (collectives, rendezvous). */
  TEPLUG_DEADLINE_EXCEEDED = 8,
  /* The state does not allow the call (e.g. a call inside an unfinished group). */
  TEPLUG_FAILED_PRECONDITION = 9
} TeplugCode;

typedef struct TeplugError TeplugError;
struct TeplugError {
  size_t struct_size;
  int32_t code; /* a TeplugCode; unknown values are treated as TEPLUG_INTERNAL */
  int32_t reserved0; /* zero; keeps the layout free of padding */
  const char* message;
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
