/* Which op tunes each family, from the registry's TUNED rows: the tuner's
 * side of the registry (the families themselves name no op). */
#include <stddef.h>

#include "../families/families.h"
#include "tune_op.h"

#define TUNED(name, op) {&clforge__family_##name, &clforge__tune_##op},
#define PLAIN(name)
const clforge__tunable clforge__tunables[] = {CLFORGE__FAMILIES(TUNED, PLAIN){NULL, NULL}};
