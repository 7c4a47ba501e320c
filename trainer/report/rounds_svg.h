// rounds_svg.h — the post-training rounds as a grouped bar chart (SVG, hand
// written like plot_svg.h): for each round, EM, F1, stop-on-EOT,
// over-refusal and abstention, all percentages on one 0–100 axis, so the
// trade each round makes (e.g. abstention bought with over-refusal) is seen
// at a glance next to the model card's table.
#pragma once
#include <string>
#include <vector>

#include "report/model_card.h"

namespace amxqa::train {

std::string render_rounds_svg(const std::vector<CardRound>& rounds, const std::string& title);

}  // namespace amxqa::train
