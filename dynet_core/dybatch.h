#pragma once
// Kept so that programs written against its old place keep building: the umbrella header is
// <dybatch.h>, above the layers, since the core includes no builder, trainer or engine. Angle
// brackets, because "dybatch.h" would find this file again.

#include <dybatch.h>
