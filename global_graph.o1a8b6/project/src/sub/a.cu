__global__ void broken( { }
