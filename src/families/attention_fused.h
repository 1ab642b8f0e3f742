/* The fused attention family's parameter indices (src/families/attention_fused.c,
 * cl/attention_fused.cl). */
#ifndef CLFORGE_SRC_KERNELS_ATTENTION_FUSED_H
#define CLFORGE_SRC_KERNELS_ATTENTION_FUSED_H

/* A work-item holds QW vectors of VW queries (TQ = QW * VW), a work-group
 * WGQ work-items (BQ = WGQ * TQ queries); keys stream in blocks of TK,
 * staged per work-item (STAGE 0) or per work-group in local memory (1);
 * DCH Dv accumulators at a time in P*V, the D loop of Q*K^T unrolled KU. */
enum { ATTF_VW, ATTF_QW, ATTF_WGQ, ATTF_TK, ATTF_DCH, ATTF_KU, ATTF_STAGE, ATTF_HALF, ATTF_NPARAMS };

#endif
