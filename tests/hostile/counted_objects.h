/* Static IGemm and IQuantizer objects for hostile plugins, with counted
 * references (ref_counters.h) and valid capability descriptors. Their
 * methods do nothing useful: these plugins test loading, not numerics. */
#ifndef TEPLUG_TESTS_HOSTILE_COUNTED_OBJECTS_H_
#define TEPLUG_TESTS_HOSTILE_COUNTED_OBJECTS_H_

#include "teplug/teplug.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A well-formed IGemm object and its capability descriptor. */
TeplugObject* hostile_gemm(void);
const TeplugGemmCaps* hostile_gemm_caps(void);
/* A well-formed IQuantizer object and its capability descriptor. */
TeplugObject* hostile_quantizer(void);
const TeplugQuantizerCaps* hostile_quantizer_caps(void);
/* An IGemm object whose function table is only a TeplugObjectVtbl. */
TeplugObject* hostile_gemm_with_small_vtbl(void);
/* An IGemm object whose query_interface answers NULL for everything. */
TeplugObject* hostile_gemm_refusing_query(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TEPLUG_TESTS_HOSTILE_COUNTED_OBJECTS_H_ */
