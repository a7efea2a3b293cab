#include "config.h"
#include "sample.h"
