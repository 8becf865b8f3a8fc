{
  "targets": [
    {
      "target_name": "srtp_native",
      "sources": ["src/srtp_sealer.c"],
      "cflags": ["-O2", "-Wall", "-Wno-deprecated-declarations"]
    }
  ]
}
