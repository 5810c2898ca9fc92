#include "host/registry/models.hpp"

#include <memory>
#include <utility>

#include "host/constrained/points.hpp"
#include "kernels/catalog/catalog.hpp"

namespace hs {

const std::vector<ModelDescriptor>& models() {
  // Every model of the catalog (kernels/catalog/catalog.hpp), with the
  // host's function table attached to those of a constrained system of
  // run-time size (host/constrained/points.hpp): the capability the stages
  // dispatch on.
  static std::vector<std::unique_ptr<ConstrainedModel>> tables;
  static const std::vector<ModelDescriptor> list = [] {
    std::vector<ModelDescriptor> all = describe_catalog();
    for (auto& d : all)
      if (auto table = constrained_table_of(d)) {
        d.constrained = table.get();
        tables.push_back(std::move(table));
      }
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
  if (m.supports_command("stability")) text += "; stability methods " + join(m.stability_methods);
  if (!m.unsupported_why.empty()) text += " (" + m.unsupported_why + ")";
  // A constrained system's sizes per backend (its catalog entry's capability).
  if (const ConstrainedModel* c = m.constrained) {
    text += "; its stability points run on the CPU at any size (dense LAPACK)";
    text += c->per_thread_mcs ? ", and on the GPU by mcs, one point per thread, up to " +
                                    std::to_string(c->per_thread_coordinates) + " coordinates" + c->size_note()
                              : ", not on the GPU";
  }
  return text;
}

}  // namespace hs
