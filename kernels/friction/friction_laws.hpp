// The friction laws hydrosweep is built with (docs/models/friction.md): every
// physics of the catalog (kernels/catalog/catalog.hpp) is compiled with each,
// for the formulations that can integrate it (a formulation's `integrates`).
// Adding a friction law is its own file and one entry here; the first entry
// is a model's default law.
#pragma once
#include "../core/type_list.hpp"
#include "friction.hpp"
#include "lugre.hpp"

namespace hs {

using FrictionLawRegistry = TypeList<BrownMcPhee, BengisuAkay, LuGre, ModifiedLuGre, NoFriction>;

}  // namespace hs
