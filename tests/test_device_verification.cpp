// The record of what a real GPU measured per combination
// (host/run/device_verification.hpp): the commands pick or refuse the CUDA
// backend from it. These check the table's lookups; what the commands do
// with a verdict needs a device (a machine without one never selects CUDA).
#include <gtest/gtest.h>

#include "host/registry/models.hpp"
#include "host/run/device_verification.hpp"
#include "host/run/stability_map.hpp"

using namespace hs;

// The kernel sources the recorded findings were measured with (2026-11-26,
// host/run/device_verification.cpp): the table's lookups are checked against
// them; what this build's own sources get is checked below.
const std::string kMeasured = "b498ee524805";

TEST(DeviceVerification, MeasuredDisagreementsAreRecordedWithWhatWasMeasured) {
  for (const char* model : {"four-bar", "four-bar-seed001"}) {
    const DeviceFinding f = device_finding("run", model, "double-step", "none");
    EXPECT_EQ(f.verdict, DeviceVerdict::disagrees) << model;
    EXPECT_NE(f.note.find("did not move"), std::string::npos) << f.note;
  }
  const DeviceFinding qr = device_finding("run", "quick-return", "double-step", "modified-lugre");
  EXPECT_EQ(qr.verdict, DeviceVerdict::disagrees);
  EXPECT_NE(qr.note.find("newton_failure"), std::string::npos) << qr.note;
  const DeviceFinding lift = device_finding("stability", "lift-tilt", "", "brown-mcphee");
  EXPECT_EQ(lift.verdict, DeviceVerdict::disagrees);
  EXPECT_NE(lift.note.find("-3.0003"), std::string::npos) << lift.note;
}

TEST(DeviceVerification, VerifiedAndUnverifiedCombinations) {
  // First match wins: friction 'none' with the double step disagrees, the
  // four-bar's other combinations agreed (with the sources measured).
  auto at = [](const char* command, const char* model, const char* formulation, const char* friction) {
    return device_finding(command, model, formulation, friction, kMeasured).verdict;
  };
  EXPECT_EQ(at("run", "four-bar", "double-step", "brown-mcphee"), DeviceVerdict::verified);
  EXPECT_EQ(at("run", "four-bar", "penalty", "none"), DeviceVerdict::verified);
  EXPECT_EQ(at("run", "lift-tilt", "double-step", "brown-mcphee"), DeviceVerdict::verified);
  EXPECT_EQ(at("run", "lift-tilt", "double-step", "none"), DeviceVerdict::verified);
  EXPECT_EQ(at("stability", "four-bar-3d", "", "brown-mcphee"), DeviceVerdict::verified);
  // The 3D four-bar after its initialize was fixed (2026-11-26), the quick-return's other laws.
  EXPECT_EQ(at("run", "four-bar-3d", "double-step", "brown-mcphee"), DeviceVerdict::verified);
  EXPECT_EQ(at("run", "four-bar-3d", "penalty", "lugre"), DeviceVerdict::verified);
  EXPECT_EQ(at("run", "quick-return", "double-step", "brown-mcphee"), DeviceVerdict::verified);
  // Never compared on a device: a model the table does not name.
  const DeviceFinding unknown = device_finding("run", "a-model-of-tomorrow", "double-step", "brown-mcphee", kMeasured);
  EXPECT_EQ(unknown.verdict, DeviceVerdict::unverified);
  EXPECT_FALSE(unknown.note.empty());
}

// A finding holds for the kernel sources it was measured with: with other
// sources an agreement is unverified again, naming both hashes; a
// disagreement stays (a change need not have fixed it). This build's sources
// are not those of 2026-11-26, so nothing is verified in it.
TEST(DeviceVerification, AnAgreementHoldsOnlyForTheSourcesMeasured) {
  const DeviceFinding moved = device_finding("run", "four-bar", "double-step", "brown-mcphee", "0123456789ab");
  EXPECT_EQ(moved.verdict, DeviceVerdict::unverified);
  EXPECT_EQ(moved.kernels, kMeasured);
  EXPECT_NE(moved.note.find("kernel sources " + kMeasured + ", this build's 0123456789ab"), std::string::npos)
      << moved.note;
  EXPECT_NE(moved.note.find("NVIDIA H200 (2026-11-26)"), std::string::npos) << moved.note;
  const DeviceFinding still = device_finding("run", "four-bar", "double-step", "none", "0123456789ab");
  EXPECT_EQ(still.verdict, DeviceVerdict::disagrees);
  EXPECT_NE(still.note.find("did not move"), std::string::npos) << still.note;
  EXPECT_NE(still.note.find("this build's 0123456789ab"), std::string::npos) << still.note;
  // By default a finding is judged for this build's sources.
  ASSERT_EQ(std::string(kernel_sources_hash()).size(), 12u);
  EXPECT_EQ(device_finding("run", "four-bar", "double-step", "brown-mcphee").verdict,
            device_finding("run", "four-bar", "double-step", "brown-mcphee", kernel_sources_hash()).verdict);
  if (kernel_sources_hash() != kMeasured) {  // today's build (its kernels changed after 2026-11-26)
    EXPECT_EQ(device_finding("run", "four-bar", "double-step", "brown-mcphee").verdict, DeviceVerdict::unverified);
    EXPECT_EQ(device_finding("stability", "four-bar", "", "brown-mcphee").verdict, DeviceVerdict::unverified);
  }
}

// Without a device `auto` keeps every map on the CPU, with no note about the
// device's findings (they matter only where CUDA could have been chosen).
TEST(DeviceVerification, AutoWithoutADeviceRunsMapsOnTheCpu) {
  if (backend_available(Backend::cuda)) GTEST_SKIP() << "a CUDA device is visible";
  std::string note;
  EXPECT_EQ(stability_backend(Backend::automatic, &note, find_model("lift-tilt"), "brown-mcphee"), Backend::cpu);
  EXPECT_TRUE(note.empty()) << note;
}

// The decision both commands take from a finding: auto stays on the CPU with
// a note unless verified; an explicit request is refused where a device
// disagreed, warned where none compared.
TEST(DeviceVerification, DecisionFollowsTheFinding) {
  const DeviceDecision verified =
      decide_device("run", *find_model("four-bar"), "double-step", "brown-mcphee", false, kMeasured);
  EXPECT_TRUE(verified.use_device);
  EXPECT_TRUE(verified.note.empty() && verified.refusal.empty());
  const DeviceDecision auto_bad = decide_device("run", *find_model("four-bar"), "double-step", "none", false, kMeasured);
  EXPECT_FALSE(auto_bad.use_device);
  EXPECT_TRUE(auto_bad.refusal.empty());
  EXPECT_NE(auto_bad.note.find("running on the CPU"), std::string::npos) << auto_bad.note;
  const DeviceDecision named_bad = decide_device("stability", *find_model("lift-tilt"), "", "brown-mcphee", true, kMeasured);
  EXPECT_FALSE(named_bad.use_device);
  EXPECT_NE(named_bad.refusal.find("use --backend cpu"), std::string::npos) << named_bad.refusal;
  ModelDescriptor tomorrow;
  tomorrow.name = "a-model-of-tomorrow";
  const DeviceDecision auto_unknown = decide_device("run", tomorrow, "double-step", "lugre", false);
  EXPECT_FALSE(auto_unknown.use_device);
  const DeviceDecision named_unknown = decide_device("run", tomorrow, "double-step", "lugre", true);
  EXPECT_TRUE(named_unknown.use_device);
  EXPECT_NE(named_unknown.note.find("check its results"), std::string::npos) << named_unknown.note;
}

// A model read from a file is recorded under its catalog entry's key: every
// file of an entry runs the same generic kernels, whatever it names its model,
// and those kernels have not run on a device yet (2026-11-29): `auto` keeps
// them on the CPU, an explicit request runs with a warning that names the
// file's model. The wildcard `stability * verified` of the compiled models
// does not reach them.
TEST(DeviceVerification, ModelFilesAreRecordedUnderTheirEntryAndUnverified) {
  ModelDescriptor file;
  file.name = "four-bar";  // a file may take a compiled model's name
  file.physics = "planar-multibody";
  file.file_path = "models/four_bar.toml";
  EXPECT_EQ(device_record_model(file), "planar-multibody");
  EXPECT_EQ(device_record_model(*find_model("four-bar")), "four-bar");
  for (const char* entry : {"planar-multibody", "planar-multibody-2"}) {
    EXPECT_EQ(device_finding("run", entry, "double-step", "brown-mcphee", kMeasured).verdict, DeviceVerdict::unverified)
        << entry;
    EXPECT_EQ(device_finding("run", entry, "penalty", "lugre", kMeasured).verdict, DeviceVerdict::unverified) << entry;
    EXPECT_EQ(device_finding("stability", entry, "", "brown-mcphee", kMeasured).verdict, DeviceVerdict::unverified)
        << entry;
  }
  const DeviceDecision auto_file = decide_device("run", file, "double-step", "brown-mcphee", false);
  EXPECT_FALSE(auto_file.use_device);
  const DeviceDecision named_file = decide_device("stability", file, "", "brown-mcphee", true);
  EXPECT_TRUE(named_file.use_device);
  EXPECT_NE(named_file.note.find("model four-bar"), std::string::npos) << named_file.note;
  EXPECT_NE(named_file.note.find("check its results"), std::string::npos) << named_file.note;
}
