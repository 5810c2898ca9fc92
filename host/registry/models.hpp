// The models hydrosweep knows, by name: every model of every physics in the
// catalog (kernels/catalog/catalog.hpp, one line per physics). Each model
// describes itself beside its physics (kernels/models/*_descriptor.hpp,
// kernels/models/descriptor.hpp).
#pragma once
#include <string>
#include <vector>

#include "kernels/models/descriptor.hpp"

namespace hs {

// Every model, in the order `hydrosweep parameters` lists them.
const std::vector<ModelDescriptor>& models();
// nullptr if unknown.
const ModelDescriptor* find_model(const std::string& name);
std::vector<std::string> model_names();
// "four-bar-3d supports: command stability; friction laws brown-mcphee, ..."
std::string model_support_text(const ModelDescriptor& m);

}  // namespace hs
