#include "config.h"
#include "print_table.h"
