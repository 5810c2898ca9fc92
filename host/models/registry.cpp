#include "host/models/registry.hpp"

#include "host/linearize/constrained_models.hpp"
#include "kernels/models/catalog.hpp"

namespace hs {

const std::vector<ModelDescriptor>& models() {
  // The compiled physics (kernels/models/catalog.hpp), then the constrained
  // systems of run-time size (host/linearize/constrained_models.hpp).
  static const std::vector<ModelDescriptor> list = [] {
    std::vector<ModelDescriptor> all = describe_catalog();
    for (const auto& c : constrained_models()) all.push_back(c.descriptor);
    return all;
  }();
  return list;
}

const ModelDescriptor* find_model(const std::string& name) {
  for (const auto& m : models())
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> model_names() {
  std::vector<std::string> out;
  for (const auto& m : models()) out.push_back(m.name);
  return out;
}

namespace {
std::string join(const std::vector<std::string>& v) {
  if (v.empty()) return "none";
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : ", ") + e;
  return s;
}
}  // namespace

std::string model_support_text(const ModelDescriptor& m) {
  std::string text = "model " + m.name + " supports commands " + join(m.commands) + "; formulations " +
                     join(m.formulations) + "; friction laws " + join(m.friction_laws);
  // Where a formulation or the stability map takes fewer laws, say which.
  for (const auto& e : m.formulation_friction_laws)
    if (e.friction_laws != m.friction_laws) text += "; " + e.formulation + " integrates " + join(e.friction_laws);
  if (m.supports_command("stability") && m.stability_friction_laws != m.friction_laws)
    text += "; stability linearizes " + join(m.stability_friction_laws);
  return text;
}

}  // namespace hs
