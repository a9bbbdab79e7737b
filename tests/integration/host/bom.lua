print("bom ok")
