// Model files: a user's planar hydraulic mechanism described in TOML
// (docs/model-files.md) becomes a model like the compiled ones — a
// ModelDescriptor whose physics is the catalog's generic planar mechanism
// (kernels/models/planar_multibody_descriptor.hpp), whose parameters are
// named after the file's elements (body.boom.mass, joint.O.initial,
// cylinder.lift.piston_diameter, ...) and whose default row is the file's
// values. Every backend, study design and output then works from the
// descriptor alone, as for a compiled model.
//
// Reading a file checks its structure and its assembly at the file's values
// (docs/model-files.md §5): unknown keys, elements or points; a body that
// hangs from no joint or from two; bodies that do not reach the ground; more
// degrees of freedom, bodies, loops or cylinders than the compiled capacity;
// dependent constraint rows (rank of Φ_q, naming the joints); an assembly
// that does not close from the initial guesses; a cylinder of zero length.
// Each is a ModelFileError "FILE:LINE: what, naming the element and key".
#pragma once
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/models/descriptor.hpp"

namespace hs {

class ModelFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The model of a file (throws ModelFileError; a file that cannot be read
// names its path and the reason).
std::shared_ptr<const ModelDescriptor> load_model_file(const std::string& path);
// Same, from text in memory (path for messages only).
std::shared_ptr<const ModelDescriptor> parse_model_file(const std::string& text, const std::string& path);

// A model embedded in a study: the study's [machine] table holds a model
// file's tables ([machine.model], [[machine.body]], ...; a Python dict study's
// "machine" dict). Messages cite the study's path and lines; the descriptor
// records "PATH [machine]" and the table's TOML text.
std::shared_ptr<const ModelDescriptor> parse_embedded_model(const std::string& study_text, const std::string& study_path);

// Whether a --model argument or a [study] model names a model file rather
// than a registered model: it ends in ".toml".
bool names_model_file(const std::string& model);

}  // namespace hs
