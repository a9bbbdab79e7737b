print("hello from lua")
