// The binding of text generation, added to the module by module.cpp.
#pragma once

#include <nanobind/nanobind.h>

#include "pt2ov/pt2ov.h"

namespace pt2ov::python {

namespace nb = nanobind;

// `program_of` gives the Program of a pt2ov._Program object (module.cpp knows its layout).
void bind_generate(nb::module_& m, pt2ov::Program& (*program_of)(nb::handle));

}  // namespace pt2ov::python
