#include "config.h"
#include "rng.h"
