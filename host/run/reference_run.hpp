// The nominal instance's run: the reference of the tracking_rms output.
#pragma once
#include <atomic>
#include <vector>

#include "host/study/study.hpp"

namespace hs {

// The driving coordinate of the nominal instance (the study's base parameters) at every step,
// the reference of tracking_rms (BatchSpec::reference). Empty if that run fails or *cancel turns true.
std::vector<double> reference_trajectory(const StudyRecord& record, const Design& design,
                                         const std::atomic<bool>* cancel = nullptr);  // Ctrl-C: an empty reference

}  // namespace hs
