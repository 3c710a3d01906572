#pragma once
// The table of every operator. Families add their rows when dybatch initializes (explicitly:
// static libraries drop static self-registration); tests and tools iterate the table.

#include <initializer_list>
#include <vector>

#include "dynet_core/op_def.h"

namespace dynet {

/// Every registered op, in registration order (op->id is the index).
const std::vector<const OpDef*>& registered_ops();
/// The op with that name, or null.
const OpDef* find_op(const char* name);
/// Adds rows to the table; called by the family registration functions.
void register_ops(std::initializer_list<OpDef*> rows);
/// Registers every family once; initialize() calls it.
void register_all_ops();

}  // namespace dynet
