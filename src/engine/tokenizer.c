#include "config.h"
#include "tokenizer.h"
