#pragma once
// Every trainer, under the name of DyNet's header (dynet/training.h).

#include "trainers/adadelta_trainer.h"
#include "trainers/adagrad_trainer.h"
#include "trainers/adam_trainer.h"
#include "trainers/amsgrad_trainer.h"
#include "trainers/cyclical_sgd_trainer.h"
#include "trainers/eg_trainer.h"
#include "trainers/learning_rate_schedule.h"
#include "trainers/momentum_sgd_trainer.h"
#include "trainers/parallel/communicator.h"
#include "trainers/parallel/data_parallel.h"
#include "trainers/parallel/distributed_reducer.h"
#include "trainers/parallel/sharded_training.h"
#include "trainers/rmsprop_trainer.h"
#include "trainers/simple_sgd_trainer.h"
#include "trainers/trainer.h"
#include "trainers/trainer_by_name.h"
