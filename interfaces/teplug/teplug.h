/* teplug/teplug.h — the whole teplug C ABI. Vendors include this one header. */
#ifndef TEPLUG_TEPLUG_H_
#define TEPLUG_TEPLUG_H_

#include "teplug/abi_base.h"
#include "teplug/attention.h"
#include "teplug/capability.h"
#include "teplug/collective.h"
#include "teplug/device.h"
#include "teplug/gemm.h"
#include "teplug/norm.h"
#include "teplug/plugin.h"
#include "teplug/quantizer.h"
#include "teplug/status.h"
#include "teplug/types.h"

#endif /* TEPLUG_TEPLUG_H_ */
