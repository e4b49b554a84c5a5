// `hsalit run --backend hip|cuda`: the hardware backends of the run command (docs/hardware.md).
// run_command.cpp registers these options and hands over when a hardware backend is chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hsalit::cli {

// Options only the hardware backends have.
struct HardwareRunOptions {
  bool hip_builtins = false;
  std::string incantations;
  int instances = 1024;
  std::string keep_source;
  bool host_emulation = false;
  int workgroup_size = 256;
  int resident_workgroups = 0;
};

// What the run command already parsed, as the hardware backends need it.
struct HardwareRunRequest {
  std::vector<std::string> inputs;
  std::string backend;  // hip or cuda
  std::string target;
  bool target_given = false;
  std::string mapping_file, table, flavour;
  bool sc_orders = false;
  std::uint64_t iterations = 0;
  std::uint64_t seed = 1;
  bool json = false;
  double timeout = 60;
};

bool is_hardware_backend(const std::string& backend);
std::shared_ptr<HardwareRunOptions> add_hardware_run_options(CLI::App* run);
int run_hardware_backend(const HardwareRunOptions& hw, const HardwareRunRequest& request);

}  // namespace hsalit::cli
