void launch_a(float *x);
void launch_b(float *x);
void launch_use(float *x);
int main(int argc, char **) {
  if (argc > 1) {  // links every library; runs no kernel (no GPU needed)
    launch_a(nullptr);
    launch_b(nullptr);
    launch_use(nullptr);
  }
  return 0;
}
