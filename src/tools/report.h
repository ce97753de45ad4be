// How `pt2ov inspect` shows placement reports: text for people, JSON for tools (the JSON shape
// is the one README.md, "The command line", gives; tests/e2e read it).
#pragma once

#include <string>
#include <vector>

#include "pt2ov/pt2ov.h"

namespace pt2ov::tools {

std::string report_text(const std::vector<PlacementReport>& reports);
std::string report_json(const std::vector<PlacementReport>& reports);

}  // namespace pt2ov::tools
