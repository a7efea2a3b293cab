#include "config.h"
#include "weights.h"
