#pragma once
// Every operator, as DyNet's dynet/expr.h offers them.

#include "dynet_core/expression.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/convolution.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/gradient_control.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/losses.h"
#include "dynet_core/ops/lstm.h"
#include "dynet_core/ops/normalization.h"
#include "dynet_core/ops/random.h"
#include "dynet_core/ops/reductions.h"
#include "dynet_core/ops/select.h"
#include "dynet_core/ops/shape.h"
#include "dynet_core/ops/softmax.h"
