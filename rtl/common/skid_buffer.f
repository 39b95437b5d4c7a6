// The stream register slice (valid/ready, both sides registered).
--top-module skid_buffer
rtl/common/skid_buffer.sv
