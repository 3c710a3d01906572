// A training program outside the source tree, built against an installed dybatch's program
// frame (dybatch::program): its flags, the trainer they name, and main()'s exit status.
#include <dybatch.h>

#include <cmath>

#include <trainers/program/training_program.h>
#include <boost/program_options.hpp>

int main(int argc, char** argv) {
  dynet::TrainingFlags training;
  training.trainer = "sgd";
  training.learning_rate = 0.1f;
  boost::program_options::options_description flags("flags");
  training.declare(flags, "examples", false);
  return dynet::run_training_program("training_frame", "Fits w * 2 to 6.", flags, argc, argv, [&] {
    dynet::ParameterCollection model;
    dynet::Parameter w = model.add_parameters({1}, dynet::ParameterInitConst(0.f));
    auto trainer = training.make_trainer(model);
    for (unsigned step = 0; step < 50 * training.epochs; ++step) {
      dynet::ComputationGraph cg;
      dynet::Expression loss = dynet::squared_distance(dynet::parameter(cg, w) * 2.f, dynet::input(cg, 6.f));
      cg.forward(loss);
      cg.backward(loss);
      trainer->update();
    }
    return std::abs(dynet::as_scalar(*w.values()) - 3.f) < 1e-3f ? 0 : 1;
  });
}
