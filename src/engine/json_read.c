#include "config.h"
#include "json_read.h"
