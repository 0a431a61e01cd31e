#ifndef CJANSSON_SHIM_H
#define CJANSSON_SHIM_H

#include <jansson.h>

// The decoding flags are macros and json_error_code is a static inline over the error's text; Swift imports neither
// reliably, so they are typed here.
static const size_t CJANSSON_REJECT_DUPLICATES = JSON_REJECT_DUPLICATES;
static const size_t CJANSSON_DECODE_ANY = JSON_DECODE_ANY;
static const size_t CJANSSON_ALLOW_NUL = JSON_ALLOW_NUL;
static const size_t CJANSSON_DECODE_INT_AS_REAL = JSON_DECODE_INT_AS_REAL;
// Encoding: no whitespace, members sorted by name (what Ringer's JSONEncoder writes).
static const size_t CJANSSON_COMPACT_SORTED = JSON_COMPACT | JSON_SORT_KEYS;

static inline int CJansson_isDuplicateKey(const json_error_t *error) {
    return json_error_code(error) == json_error_duplicate_key;
}

#endif
