// The verdicts that carry an error across MPI ranks (host/run/rank_collectives.hpp).
#include "host/run/rank_collectives.hpp"

#include <stdexcept>

#include "host/run/errors.hpp"
#include "host/study/study.hpp"

namespace hs {

// An error crossing ranks (host/run/rank_collectives.hpp): its kind (the
// exception type, so every rank exits with the status one process would)
// and its message.
std::string verdict_of(const std::exception& e) {
  if (dynamic_cast<const ResumeError*>(&e)) return std::string("R") + e.what();
  if (dynamic_cast<const OutputError*>(&e)) return std::string("O") + e.what();
  if (dynamic_cast<const StudyError*>(&e)) return std::string("S") + e.what();
  return std::string("E") + e.what();
}
void throw_verdict(const std::string& verdict) {
  const std::string message = verdict.substr(1);
  switch (verdict[0]) {
    case 'R': throw ResumeError(message);
    case 'O': throw OutputError(message);
    case 'S': throw StudyError(message);
    default: throw std::runtime_error(message);
  }
}

}  // namespace hs
