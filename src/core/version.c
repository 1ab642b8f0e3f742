#include "clforge/clforge.h"

const char *clforge_version(void) { return CLFORGE_VERSION_STRING; }
unsigned clforge_version_number(void) { return CLFORGE_VERSION_NUMBER; }
