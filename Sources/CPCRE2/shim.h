#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/// `PCRE2_ZERO_TERMINATED`, a cast Swift does not import.
static inline size_t cpcre2_zero_terminated(void) {
    return PCRE2_ZERO_TERMINATED;
}
