/* The monotonic clock the build log and the tuner time with. */
#ifndef CLFORGE_SRC_CORE_CLOCK_H
#define CLFORGE_SRC_CORE_CLOCK_H

/* Monotonic clock, seconds. */
double clforge__now(void);

#endif
