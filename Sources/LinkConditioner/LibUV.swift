import CLibUV
