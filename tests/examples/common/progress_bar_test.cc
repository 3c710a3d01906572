#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "examples/common/progress_bar.h"

using examples::format_duration;
using examples::ProgressBar;

TEST_CASE("durations read as minutes:seconds, with hours when needed", "[examples][progress]") {
  CHECK(format_duration(7.2) == "0:07");
  CHECK(format_duration(750) == "12:30");
  CHECK(format_duration(3723) == "1:02:03");
  CHECK(format_duration(-5) == "0:00");
}

TEST_CASE("a progress bar for logs writes plain lines with the rate and time left", "[examples][progress]") {
  std::ostringstream out;
  ProgressBar bar("epoch 1", 10, "trees", out, false, 0.0);
  bar.advance(4, "loss 1.5");
  bar.finish("loss 1.2");
  const std::string text = out.str();
  CHECK_THAT(text, Catch::StartsWith("epoch 1:  40% 4/10 trees, ") && Catch::Contains("trees/s, ETA ") &&
                       Catch::Contains(", loss 1.5\n"));
  CHECK_THAT(text, Catch::Contains("epoch 1: 4 trees in ") && Catch::EndsWith("loss 1.2\n"));
  CHECK(text.find('\r') == std::string::npos);
  CHECK(bar.done() == 4);
}

TEST_CASE("a progress bar on a terminal redraws one line", "[examples][progress]") {
  std::ostringstream out;
  ProgressBar bar("training", 4, "sent", out, true, 0.0);
  bar.advance(2);
  bar.finish();
  const std::string text = out.str();
  CHECK_THAT(text, Catch::StartsWith("\rtraining [############............]  50% 2/4 sent"));
  CHECK(text.find('\n') == text.size() - 1);
}

TEST_CASE("a progress bar for logs stays quiet between periods", "[examples][progress]") {
  std::ostringstream out;
  ProgressBar bar("epoch", 1000, "sent", out, false, 3600.0);
  for (int k = 0; k < 1000; ++k) bar.advance(1);
  CHECK(out.str().empty());
  bar.finish();
  CHECK_THAT(out.str(), Catch::StartsWith("epoch: 1000 sent in "));
}
