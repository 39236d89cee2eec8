#pragma once
#define B_SCALE 3.f
