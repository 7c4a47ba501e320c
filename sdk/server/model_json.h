// model_json.h — GET /v1/model's body: what the server answers with (the
// model's architecture, provenance, calibrated no-answer threshold and
// recorded scores, and the library version), made once at start.
#pragma once
#include <cstddef>
#include <string>

#include "amxqa.hpp"

namespace amxqa::serve {

std::string model_info_body(const amxqa::Model& model, size_t workers, uint32_t max_passage_tokens);
// The same without the server's fields (`amxqa inspect --json`).
std::string model_info_json(const amxqa::Model& model);

}  // namespace amxqa::serve
