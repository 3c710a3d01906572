#pragma once
// Every trainer, under the name of DyNet's header (dynet/training.h).

#include "trainers/adadelta_trainer.h"
#include "trainers/adagrad_trainer.h"
#include "trainers/adam_trainer.h"
#include "trainers/amsgrad_trainer.h"
#include "trainers/communicator.h"
#include "trainers/cyclical_sgd_trainer.h"
#include "trainers/data_parallel.h"
#include "trainers/distributed_reducer.h"
#include "trainers/eg_trainer.h"
#include "trainers/learning_rate_schedule.h"
#include "trainers/momentum_sgd_trainer.h"
#include "trainers/rmsprop_trainer.h"
#include "trainers/sharded_training.h"
#include "trainers/simple_sgd_trainer.h"
#include "trainers/trainer.h"
#include "trainers/trainer_by_name.h"
