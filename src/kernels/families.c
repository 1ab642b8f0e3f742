/* The families the tuner knows (each carries its op's tuning hooks), and
 * every family (for checking parameter overrides). */
#include "families.h"

const clforge__family *const clforge__tunable_families[] = {
    &clforge__family_gemm,
    &clforge__family_gemm_direct,
    &clforge__family_gemm_packed,
    &clforge__family_conv_direct,
    &clforge__family_conv_depthwise,
    &clforge__family_conv_winograd_2x2,
    &clforge__family_conv_winograd_4x4,
    &clforge__family_conv_fft,
    &clforge__family_conv_gemm_1x1,
    &clforge__family_conv_im2col,
    &clforge__family_conv_implicit_gemm,
    &clforge__family_softmax,
    &clforge__family_softmax_backward,
    &clforge__family_cross_entropy,
    &clforge__family_optimizer,
    &clforge__family_attention_fused,
    &clforge__family_attention_split_kv,
    &clforge__family_attention_backward,
    NULL,
};

/* One per line: conv families join the tuner's list when they are written. */
const clforge__family *const clforge__all_families[] = {
    &clforge__family_convert,
    &clforge__family_gemm,
    &clforge__family_gemm_direct,
    &clforge__family_gemm_packed,
    &clforge__family_conv_direct,
    &clforge__family_conv_implicit_gemm,
    &clforge__family_conv_gemm_1x1,
    &clforge__family_conv_im2col,
    &clforge__family_conv_winograd_2x2,
    &clforge__family_conv_winograd_4x4,
    &clforge__family_conv_fft,
    &clforge__family_conv_depthwise,
    &clforge__family_conv_bwd_data_direct,
    &clforge__family_conv_bwd_filter_direct,
    &clforge__family_attention_fused,
    &clforge__family_attention_split_kv, &clforge__family_attention_combine,
    &clforge__family_softmax,
    &clforge__family_softmax_backward,
    &clforge__family_cross_entropy,
    &clforge__family_optimizer,
    &clforge__family_activation_backward,
    &clforge__family_quantize,
    &clforge__family_norm,
    &clforge__family_attention_backward,
    NULL,
};
