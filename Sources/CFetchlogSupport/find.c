#include <string.h>
#include "CFetchlogSupport.h"


const void *fl_find_rare(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length, size_t rare) {
    const unsigned char *h = haystack, *n = needle;
    if (needle_length == 0 || needle_length > haystack_length || rare >= needle_length) return NULL;
    const unsigned char *p = h + rare;
    const unsigned char *end = h + (haystack_length - needle_length) + rare + 1; /* one past the last place the rare byte can be */
    while (p < end) {
        p = memchr(p, n[rare], (size_t)(end - p));
        if (p == NULL) return NULL;
        const unsigned char *start = p - rare;
        if (memcmp(start, n, needle_length) == 0) return start;
        p++;
    }
    return NULL;
}
