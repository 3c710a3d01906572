#pragma once
// DyNet's <dynet/mp.h>: multi-process training; dybatch trains on several cores with DataParallel.

#include "trainers/parallel/data_parallel.h"
