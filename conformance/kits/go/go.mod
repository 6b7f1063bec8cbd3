module parcallkit

go 1.19
