/* The families the tuner knows and every family (for checking parameter
 * overrides), both generated from the registry (registry.h). */
#include "families.h"

#define TUNED(name, op) &clforge__family_##name,
#define PLAIN(name) &clforge__family_##name,
#define SKIP(name)

const clforge__family *const clforge__tunable_families[] = {CLFORGE__FAMILIES(TUNED, SKIP) NULL};

const clforge__family *const clforge__all_families[] = {CLFORGE__FAMILIES(TUNED, PLAIN) NULL};
