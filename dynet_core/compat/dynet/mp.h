#pragma once
// DyNet's <dynet/mp.h>: multi-process training (dynet::mp), with what DyNet's header brings in
// (its programs name boost::interprocess through it). DataParallel trains on several cores of
// one process, sharing one model without forks.

#include <sys/shm.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/algorithm/string.hpp>
#include <boost/interprocess/anonymous_shared_memory.hpp>
#include <boost/interprocess/ipc/message_queue.hpp>
#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <boost/interprocess/sync/interprocess_semaphore.hpp>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "dynet/dict.h"
#include "dynet/dynet.h"
#include "dynet/expr.h"
#include "dynet/globals.h"
#include "dynet/lstm.h"
#include "dynet/training.h"
#include "trainers/parallel/data_parallel.h"
#include "trainers/parallel/multi_process.h"
