#include "config.h"
#include "attention.h"
