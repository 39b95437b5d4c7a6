// The registered product (mapped onto the ECP5 DSP by its own ROCENIC_ECP5 form).
--top-module mul_reg
rtl/common/mul_reg.sv
