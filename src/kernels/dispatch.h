// Internal to the CPU kernels: every helper of src/kernels/util/, one header per concern.
// Kernels include this (or only the util headers they need); nothing outside src/kernels/
// should.
#pragma once

#include "kernels/util/arguments.h"
#include "kernels/util/dense_copy.h"
#include "kernels/util/dtype_dispatch.h"
#include "kernels/util/element_types.h"
#include "kernels/util/elementwise.h"
#include "kernels/util/operands.h"
#include "kernels/util/parallel.h"
#include "kernels/util/shapes.h"
#include "kernels/util/strided_loops.h"
