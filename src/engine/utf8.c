#include "config.h"
#include "utf8.h"
