/* The monotonic clock (clock.h). */
#include "clock.h"

#include <time.h>

double clforge__now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
