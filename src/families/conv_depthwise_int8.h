/* The conv_depthwise_int8 family's parameter indices
 * (src/families/conv_depthwise_int8.c, cl/conv_depthwise_int8.cl). */
#ifndef CLFORGE_SRC_FAMILIES_CONV_DEPTHWISE_INT8_H
#define CLFORGE_SRC_FAMILIES_CONV_DEPTHWISE_INT8_H

enum { CDWI8_VW, CDWI8_WG, CDWI8_NPARAMS };

#endif
