#include <malloc.h>
#include "CFetchlogSupport.h"

int fl_release_free_memory(void) { return malloc_trim(0); }
