#include "config.h"
#include "model.h"
