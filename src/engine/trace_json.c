#include "config.h"
#include "trace_json.h"
