// metrics_plot.h — `amxqa-train plot` and the run's training.svg: the JSONL
// metrics log as three panels over tokens trained (all stages in sequence):
// training and validation loss, tokens/s, and the collapse diagnostics
// (lowest RMSNorm-gain PR share, mean expert-usage PR share). Stage
// boundaries are dashed lines; sdk/eval/plot_svg.h draws it.
#pragma once
#include <string>

#include "plot_svg.h"

namespace amxqa::train {

// Reads a metrics log (torn or foreign lines are skipped). Throws if unreadable.
eval::PlotData read_metrics_log(const std::string& path);

}  // namespace amxqa::train
